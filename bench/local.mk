# bench/: benchmarks, built by `make bench`, run by hand (see bench/README.md).
