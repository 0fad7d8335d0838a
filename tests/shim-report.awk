# The shim's exit reports of many processes (tsshim: ROUTINE calls=N
# offloaded=N fallbacks=N ...), summed per routine, and their device lines
# (tsshim: device D runs=N ...), summed per device, as '#' lines; other
# tsshim lines are counted.  Exit status 1 when no call was seen at all (the
# shim was not preloaded?), or, with -v mode=gpu, none ran on the GPU.
# Used by tests/lapack/check-lapack.sh and tests/scalapack/check-scalapack.sh.
$1 == "tsshim:" && $3 ~ /^calls=/ {
    r = $2
    if (!(r in calls))
        names[++n] = r
    for (i = 3; i <= 5; i++) {
        split($i, kv, "=")
        v[r, kv[1]] += kv[2]
    }
    calls[r] = 1
    next
}
$0 == "tsshim: no BLAS calls reached the shim" { next }
$1 == "tsshim:" && $2 == "device" && $4 ~ /^runs=/ {
    split($4, kv, "=")
    if (!($3 in runs))
        devs[++ndev] = $3
    runs[$3] += kv[2]
    procs[$3]++
    next
}
$1 == "tsshim:" { other++ }
END {
    for (i = 1; i <= n; i++) {
        r = names[i]
        printf "# shim: %s calls=%d offloaded=%d fallbacks=%d\n", r,
            v[r, "calls"], v[r, "offloaded"], v[r, "fallbacks"]
        all += v[r, "calls"]
        off += v[r, "offloaded"]
    }
    for (i = 1; i <= ndev; i++)
        printf "# shim: device %s runs=%d in %d processes\n", devs[i], runs[devs[i]], procs[devs[i]]
    if (other)
        printf "# shim: %d other log lines (warnings)\n", other
    if (all == 0) {
        print "# the shim saw no GEMM call: was it preloaded?"
        exit 1
    }
    if (mode == "gpu" && off == 0) {
        print "# no call ran on the GPU in gpu mode"
        exit 1
    }
}
