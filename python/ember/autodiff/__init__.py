"""Reverse-mode autodiff: `grad`, `value_and_grad`, `vjp` over pytrees (`api`), graph runs
recorded on tapes and differentiated through the Rust core's joint graph and partitioner
(`tape`), pytree flattening (`pytree`), and gradients captured into the caller's graph
inside `ember.compile` (`inline`)."""

from ember.autodiff.api import grad, value_and_grad, vjp

__all__ = ["grad", "value_and_grad", "vjp"]
