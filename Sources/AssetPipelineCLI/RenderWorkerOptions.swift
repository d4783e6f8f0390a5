import ArgumentParser
import AssetWorkers

/// The render worker options of `assetpipe serve`: the worker processes that frames of animations
/// render in (`assetpipe worker`, started from this very executable).
struct RenderWorkerOptions: ParsableArguments {
    @Option(name: .customLong("render-workers"), help: ArgumentHelp(
        "Worker processes that render frames of animations (default 2). Env ASSETPIPE_RENDER_WORKERS.", valueName: "n"))
    var renderWorkers: Int?

    @Option(name: .customLong("render-timeout"), help: ArgumentHelp(
        "Seconds one frame may take to render before its worker is killed and the request gets 500 render_failed (default 10). Env ASSETPIPE_RENDER_TIMEOUT.",
        valueName: "seconds"))
    var renderTimeout: Double?

    @Option(name: .customLong("render-memory-limit"), help: ArgumentHelp(
        "Each render worker's address-space limit in bytes (default 2147483648). Env ASSETPIPE_RENDER_MEMORY_LIMIT.", valueName: "bytes"))
    var renderMemoryLimit: Int?

    /// The worker pool's settings: each from its flag, else its variable, else the default; the
    /// workers are `/proc/self/exe worker`.
    func resolve(_ env: EnvironmentReader) throws -> WorkerPool.Configuration {
        var pool = WorkerPool.Configuration(executable: "/proc/self/exe", arguments: ["worker"], count: 2, timeout: .seconds(10))
        if let count = try renderWorkers ?? env.int("ASSETPIPE_RENDER_WORKERS") {
            guard count > 0 else { throw ValidationError("--render-workers must be positive") }
            pool.count = count
        }
        if let seconds = try renderTimeout ?? env.double("ASSETPIPE_RENDER_TIMEOUT") {
            guard seconds > 0, seconds.isFinite else { throw ValidationError("--render-timeout must be a positive number of seconds") }
            pool.timeout = .nanoseconds(Int64(seconds * 1e9))
        }
        if let bytes = try renderMemoryLimit ?? env.int("ASSETPIPE_RENDER_MEMORY_LIMIT") {
            guard bytes >= 64 << 20 else { throw ValidationError("--render-memory-limit must be at least 67108864 bytes (64 MiB)") }
            pool.memoryLimit = bytes
        }
        return pool
    }
}
