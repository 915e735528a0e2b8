# controller/controller.mk: filled in by its owner
