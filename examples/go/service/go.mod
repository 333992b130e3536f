module github.com/tessera-runtime/tessera/examples/go/service

go 1.19

require github.com/tessera-runtime/tessera/bindings/go/tessera v0.0.0

// The binding in this checkout (a copy of it at the same relative path when Bazel
// builds the program: build.sh).
replace github.com/tessera-runtime/tessera/bindings/go/tessera => ../../../bindings/go/tessera
