# The plain-C core (no CUDA): a convenience library so the unit tests can
# link it directly.
noinst_LTLIBRARIES += src/libtscore.la
src_libtscore_la_SOURCES = \
	src/common/call.h src/common/routine_list.h src/common/settings.h src/common/gpu_plugin.h \
	src/common/scalars.h src/common/level3_args.h src/common/cblas.h src/common/thread.c src/common/thread.h \
	src/util/reentry.c src/util/reentry.h \
	src/cpu/forward_level3.c src/cpu/forward_level3.h \
	src/util/configuration.c src/util/configuration.h \
	src/util/log.c src/util/log.h \
	src/util/stats.c src/util/stats.h \
	src/common/clock.h \
	src/route/validate.c src/route/validate.h \
	src/route/classify.c src/route/classify.h \
	src/common/cost_model.c src/common/cost_model.h src/learn/profile.c src/learn/profile.h src/common/slicing.c src/common/slicing.h \
	src/route/route.c src/route/route.h src/learn/program_memory.c src/learn/program_memory.h \
	src/multigpu/split_plan.c src/multigpu/split_run.c src/multigpu/split.h src/multigpu/split_state.h \
	src/cpu/host_scale.c src/cpu/host_scale.h \
	src/cpu/cpu_blas.c src/cpu/cpu_blas.h \
	src/backend/gpu_backend.h src/backend/backend_state.c src/backend/backend_state.h \
	src/backend/plugin_loader.c src/backend/gpu_start.c src/backend/loader_watch.c \
	src/backend/residency.c src/backend/devices.c \
	src/entry/gemm_entry.c src/entry/gemm_entry.h \
	src/entry/level3_entry.c src/entry/level3_entry.h \
	src/dispatch/dispatch.c src/dispatch/dispatch.h \
	src/dispatch/level3_gpu.c src/dispatch/level3_gpu.h \
	src/common/mpi_launcher.c src/common/mpi_launcher.h \
	src/learn/learned_rates.c src/learn/learned_rates.h \
	src/learn/learned_store.c src/learn/learned_store.h \
	src/cache/write_tracker.c src/cache/write_tracker.h \
	src/cache/write_protect.c src/cache/write_protect.h \
	src/cache/pagemap_scan.c src/cache/pagemap_scan.h \
	src/cache/parallel_scan.c src/cache/parallel_scan.h \
	src/cache/memory_maps.c src/cache/memory_maps.h src/cache/track_util.h \
	src/cache/operand_cache.c src/cache/operand_cache.h \
	src/cache/cache_directory.c src/cache/cache_directory.h \
	src/cache/reuse_predictor.c src/cache/reuse_predictor.h \
	src/cache/cache_proof.c \
	src/entry/lifecycle.c src/entry/query.c \
	src/util/json.h
src_libtscore_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
