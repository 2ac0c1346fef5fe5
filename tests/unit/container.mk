# tests/unit/container.mk — mountd's container image and manifests.

# container/oci-build: the bundle's contents and its cache key
UNIT_TESTS += tests/unit/test-oci-build.sh
tests/unit/test-oci-build.sh: $(B)/mountd

# container/config.json, the DaemonSet, mountd.service and docs/CONTAINER.md
# agree on every privilege; the DaemonSet fits the Kubernetes API types
UNIT_TESTS += tests/unit/test-container-manifests.py
