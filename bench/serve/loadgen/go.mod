module tessera.dev/bench/serve/loadgen

go 1.19
