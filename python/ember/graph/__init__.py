"""ember's graph: SSA values, the op table and the IR text printer (docs/IR.md)."""

from ember.graph.graph import Graph
from ember.graph.ops import OPS, OpDef
from ember.graph.value import Node, Value

__all__ = ["OPS", "Graph", "Node", "OpDef", "Value"]
