module github.com/tessera-runtime/tessera/bindings/go/tessera

go 1.19
