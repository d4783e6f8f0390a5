// A worker for the tests of WorkerPool: the real Lottie frame job, and jobs that misbehave on
// purpose (crash, hang, allocate without bound, answer garbage), which the production worker
// (`assetpipe worker`) does not have.
import AssetLottieRender
import AssetWorkers

#if canImport(Glibc)
import Glibc
#endif

struct Refused: WorkerReportableError {
    var workerFailure: WorkerFailure { WorkerFailure(code: "refused", message: "asked to refuse") }
}

func allocate(_ payload: [UInt8]) -> [UInt8] {
    // grows until the address-space limit stops it
    var blocks: [UnsafeMutableRawPointer] = []
    while blocks.count <= 1_000 {
        guard let block = malloc(64 << 20) else { return Array("limited after \(blocks.count) blocks".utf8) }
        memset(block, 1, 64 << 20)
        blocks.append(block)
    }
    return Array("no limit".utf8)
}

func hang(_ payload: [UInt8]) -> [UInt8] {
    while true { sleep(1000) }
}

func garbage(_ payload: [UInt8]) -> [UInt8] {
    _ = "not a reply".withCString { write(1, $0, 11) }
    exit(0)
}

let jobs: [String: WorkerLoop.Job] = [
    LottieFrameJob.name: LottieFrameJob.handle,
    "echo": { payload in payload },
    "pid": { _ in Array(String(getpid()).utf8) },
    "refuse": { _ in throw Refused() },
    "crash": { _ in abort() },
    "hang": hang,
    "allocate": allocate,
    "garbage": garbage,
]
WorkerLoop.serve(jobs)
