module example.com/tessera-go-consumer

go 1.19

require github.com/tessera-runtime/tessera/bindings/go/tessera v0.0.0

// A checkout's module, or a copy of it: go_consumer_test.sh copies it to ../tessera-go.
replace github.com/tessera-runtime/tessera/bindings/go/tessera => ../tessera-go
