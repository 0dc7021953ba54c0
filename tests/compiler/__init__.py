"""Tests of the compiler, `codegen/`: a file for each stage module it names."""
