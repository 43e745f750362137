import SondeCore

extension WorkerPool {
    /// The threads `/probe` runs its blocking work on (libcurl's easy and multi handles, the TLS
    /// handshake), kept between probes: a new thread per probe would also make OpenSSL set up its
    /// per-thread random generators again (about 4 % of a probe's CPU over https, measured with perf).
    /// Only threads are kept; every probe still makes its own connection and TLS session. A probe
    /// never waits for another (elastic); at most 8 threads wait for work.
    static let probeThreads = WorkerPool(name: "sonde-probe", sizing: .elastic(keepIdle: 8), stackSize: 8 << 20)
}
