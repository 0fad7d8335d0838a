# The plain-C core (no CUDA): a convenience library so the unit tests can
# link it directly.
noinst_LTLIBRARIES += src/libtscore.la
src_libtscore_la_SOURCES = \
	src/ts_call.h src/routine_list.h \
	src/configuration.c src/configuration.h \
	src/log.c src/log.h \
	src/stats.c src/stats.h \
	src/clock.h \
	src/validate.c src/validate.h \
	src/classify.c src/classify.h \
	src/cost_model.c src/cost_model.h src/profile.c src/profile.h src/slicing.c src/slicing.h \
	src/route.c src/route.h src/program_memory.c src/program_memory.h \
	src/split.c src/split.h \
	src/host_scale.c src/host_scale.h \
	src/cpu_blas.c src/cpu_blas.h \
	src/gpu_backend.c src/gpu_backend.h \
	src/gemm_entry.c src/gemm_entry.h \
	src/level3_entry.c src/level3_entry.h \
	src/level3_gpu.c src/level3_gpu.h \
	src/launcher.c src/launcher.h \
	src/learned_rates.c src/learned_rates.h \
	src/learned_store.c src/learned_store.h \
	src/write_tracker.c src/write_tracker.h \
	src/operand_cache.c src/operand_cache.h \
	src/lifecycle.c
src_libtscore_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
