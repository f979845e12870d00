# QEMU model of the Apple AGX GPU: top-level entry points.
#   make run    - install what is missing, build, boot the Mesa guest on -M apple-m1
#                 (firmware boot, vulkaninfo --summary, a GLES program)
#   make run-minimal - the same with the small initramfs test guest
#   make check  - install what is missing, build, run every test suite
#   make bench  - build and print benchmark figures
#   make fuzz   - fuzz the firmware core with libFuzzer (FUZZ_SECONDS=60)
#   make fuzz-device - fuzz the GPU device with QEMU's generic-fuzz
#   make fuzz-oss - build the core's fuzz targets as OSS-Fuzz does and run them
# Overrides: QEMU_SRC=<qemu 10.0 tree>, KERNEL=<Image>, DTB=<dtb>,
#            AGX_CACHE=<cache dir, default ~/.cache/agx-qemu>

.PHONY: all setup qemu guest mesa-guest run run-minimal check bench fuzz fuzz-device fuzz-oss clean-cache

all: qemu guest

setup:
	@scripts/setup-host.sh

qemu: setup
	@scripts/build-qemu.sh >/dev/null

guest: setup
	@scripts/build-guest.sh >/dev/null

mesa-guest: setup
	@scripts/build-mesa-guest.sh >/dev/null

run: qemu mesa-guest
	@scripts/run-guest.sh

run-minimal: qemu guest
	@scripts/run-guest.sh --minimal

check: setup
	@scripts/check.sh

bench: setup
	@scripts/bench.sh

fuzz: setup
	@scripts/fuzz.sh

fuzz-device: setup
	@scripts/fuzz-device.sh

fuzz-oss: setup
	@scripts/fuzz-oss.sh

clean-cache:
	rm -rf "$${AGX_CACHE:-$$HOME/.cache/agx-qemu}"
