"""Capture: the frame hook's Python side. Bytecode is run symbolically on variable trackers,
array operations become a graph, and the values read from the frame become guards."""
