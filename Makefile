# Twin VMAF: `make` builds into build/, `make run` scores the bundled sample, `make test` runs every test,
# `make install [PREFIX=DIR]` installs (default: the configured prefix, /usr/local; DESTDIR works too).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SHARED ?= $(abspath ../shared)
CLIPS = $(SHARED)/data/clips

.PHONY: all build run test install fuzz clean

all: build

CMAKE_FLAGS ?=

$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@mkdir -p $(BUILD)/sample
	@test -f $(BUILD)/sample/boats_ref.yuv || xz -dc $(CLIPS)/boats_576x324_420p_ref.yuv.xz > $(BUILD)/sample/boats_ref.yuv
	@test -f $(BUILD)/sample/boats_dis.yuv || xz -dc $(CLIPS)/boats_576x324_420p_dis.yuv.xz > $(BUILD)/sample/boats_dis.yuv
	$(BUILD)/tools/vmaf -r $(BUILD)/sample/boats_ref.yuv -d $(BUILD)/sample/boats_dis.yuv \
	    -w 576 -h 324 -p 420 -b 8 --feature psnr --feature psnr_hvs --feature motion \
	    --threads 2 -o $(BUILD)/sample/boats.xml
	@sed -n '/<pooled_metrics>/,/<\/pooled_metrics>/p' $(BUILD)/sample/boats.xml

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(abspath $(PREFIX)))

# A longer libFuzzer campaign than `make test` runs (FUZZ_SECONDS per target); the corpus
# grows in $(BUILD)/fuzz/work. Installs clang first when run as root (tests/fuzz/setup.sh).
FUZZ_SECONDS ?= 300
FUZZ_TARGETS = model video_input options output segment
fuzz: build
	tests/fuzz/setup.sh
	tests/fuzz/build.sh $(BUILD)/tests/fuzz
	@for t in $(FUZZ_TARGETS); do \
	  len=4096; extra=; [ $$t = segment ] && len=16384; [ $$t = model ] && len=65536 && extra=$(SHARED)/models; \
	  tests/fuzz/run.sh $(BUILD)/tests/fuzz/fuzz_$$t tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t \
	    $(FUZZ_SECONDS) $(BUILD)/tests/fuzz/work/$$t $$len $$extra || exit 1; \
	done

clean:
	rm -rf $(BUILD)
