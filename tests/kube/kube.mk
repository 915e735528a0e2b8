# tests/kube/kube.mk: the Kubernetes side (etc/kubernetes, `make image`).
#
#   check-kube-manifests  tests/kube/check-manifests.py: the manifests parsed
#                         (PyYAML) and checked against the image and tierctl
#   check-kube-image-vm   tests/kube/vm-image.sh: the image under podman in
#                         the two-tier VM, run as the DaemonSet runs it
# Both need `make image` (podman on the host, from make deps).

KUBE_WORK := $(BUILD)/kube

.PHONY: check-kube-manifests check-kube-image-vm
check-kube-manifests: image $(TIERCTL)
	$(Q)rm -rf $(KUBE_WORK) && mkdir -p $(KUBE_WORK)
	$(Q)$(call run_test,kube-manifests,/usr/bin/python3 $(TOP)/tests/kube/check-manifests.py \
		$(TOP)/etc/kubernetes $(TIERD_IMAGE) $(IMAGE_DIR)/root $(TIERCTL) $(KUBE_WORK))

check-kube-image-vm: image
	$(Q)if [ -r $(VM_KERNEL) ]; then \
		$(call run_test,kube-image-vm,$(TOP)/tests/vm/run-vm --timeout 400 --mem-fast 512M \
			--kernel $(VM_KERNEL) $(TOP)/tests/kube/vm-image.sh $(IMAGE_DIR)/tierd.oci.tar \
			$(TIERD_IMAGE)); \
	else \
		$(call run_test,kube-image-vm,sh -c 'echo "SKIP: no patched kernel at $(VM_KERNEL) (make kernel KERNEL=patched)"; exit 77'); \
	fi

CHECK_TARGETS += check-kube-manifests check-kube-image-vm
