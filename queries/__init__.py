"""The dataset builder (Q-ARE-style query → target-API sets), evaluation
slices, and the SCCGBench Python AST tools."""

__all__: list[str] = []
