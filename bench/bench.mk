# bench/bench.mk: filled in by its owner
