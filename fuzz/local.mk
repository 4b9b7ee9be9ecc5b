# fuzz/: libFuzzer targets, one per parser (`make fuzz`, needs clang), and a
# replay driver that runs each target over its corpus in `make check`
# without clang.
