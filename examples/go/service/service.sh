#!/bin/bash
# //examples/go/service:service: runs the Go program that build.sh made, which sits
# beside this script both in bazel-bin and in a runfiles tree. exec: the program takes
# this process (its pid is the one the startup line prints, and mpirun's signals reach
# it directly).
exec "$(dirname "${BASH_SOURCE[0]}")/tessera-go-service" "$@"
