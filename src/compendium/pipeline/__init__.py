"""Running the stages: the stage runner, the parameters and their schema, the stage deps, metrics,
notebook execution, result writing, progress, paths, the reset after an exercise and the raw-data guard.

The lowest room: it imports nothing else of the package, and everything may import it.
"""
