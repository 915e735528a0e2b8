# kernel-patches/kernel.mk: filled in by its owner
