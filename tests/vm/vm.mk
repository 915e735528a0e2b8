# tests/vm/vm.mk: filled in by its owner
