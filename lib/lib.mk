# lib/lib.mk: filled in by its owner
