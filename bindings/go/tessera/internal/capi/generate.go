// Package capi is the raw layer of package tessera: SWIG's Go wrapper of the C API,
// generated from the checked-in interface bindings/tessera.i (with bindings/go/tessera_go.i
// and the headers in capi/include) by `go generate ./internal/capi` in this module, and
// checked in so that the module builds without SWIG. Do not edit tessera.go or
// tessera_wrap.c: edit the interface files and regenerate (SWIG 4.1.0);
// //bindings/go:go_generate_test fails while they are stale. Its cgo flags come from
// `#cgo pkg-config: tessera` (an installed Tessera's lib/pkgconfig on PKG_CONFIG_PATH).
// Users import package tessera; Go's internal rule keeps them out of this one.
package capi

//go:generate swig -go -cgo -intgosize 64 -DSWIGWORDSIZE64 -package capi -I../../../.. -I../../../../../capi/include -outdir . -o tessera_wrap.c ../../../../tessera.i
