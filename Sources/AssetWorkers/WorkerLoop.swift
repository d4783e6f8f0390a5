#if canImport(Glibc)
import Glibc
#endif

/// An error a job can report to its ``WorkerPool`` as it is: its code and message travel in the
/// reply, and the parent gets them back in ``WorkerError/failure``.
public protocol WorkerReportableError: Error {
    /// The code and message the worker sends for this error.
    var workerFailure: WorkerFailure { get }
}

/// The worker's side: serves the requests of a ``WorkerPool`` on standard input and output, one at
/// a time, until standard input closes.
///
/// It first limits its own address space to the bytes in `ASSETPIPE_WORKER_MEMORY_LIMIT` (set by
/// the pool), so that a runaway allocation in a job fails here instead of growing without bound.
/// Standard output carries the replies only: a job that logs writes to standard error.
public enum WorkerLoop {
    /// A job: the request's payload in, the result out; it may throw a ``WorkerReportableError``
    /// (any other error is reported as `failed` with its description).
    public typealias Job = ([UInt8]) throws -> [UInt8]

    /// The environment variable that carries the memory limit in bytes.
    public static let memoryLimitVariable = "ASSETPIPE_WORKER_MEMORY_LIMIT"

    /// Asks the parent for `count` bytes of the job's source at `offset` (see
    /// ``WorkerPool/run(_:payload:reads:)``) and waits for them. Call it only from a job, on the
    /// thread that runs it.
    /// - Returns: at most `count` bytes (fewer only at the source's end), or nil when the parent's
    ///   read failed or the job was started without reads.
    public static func readFromParent(offset: Int64, count: Int) -> [UInt8]? {
        guard count >= 0, count <= WorkerMessage.maxPayload else { return nil }
        do {
            try DescriptorIO.writeAll(1, WorkerMessage.read(offset: offset, count: count))
            let head = try DescriptorIO.read(0, count: 13, deadline: nil)
            guard Array(head[0..<4]) == WorkerMessage.magic else { exit(2) }
            let length = WorkerMessage.integer(Array(head[5..<13]))
            guard length <= UInt64(count) else { exit(2) }
            let bytes = try DescriptorIO.read(0, count: Int(length), deadline: nil)
            return head[4] == 0 ? bytes : nil
        } catch {
            exit(0)  // the pool is gone
        }
    }

    /// Serves `jobs` by name and exits when the pool closes standard input (status 0), or with
    /// status 2 when a request is malformed.
    public static func serve(_ jobs: [String: Job]) -> Never {
        if let text = getenv(memoryLimitVariable), let limit = Int(String(cString: text)), limit > 0 {
            var bound = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
            _ = setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &bound)
        }
        signal(SIGPIPE, SIG_IGN)
        while true {
            let result: Result<[UInt8], WorkerFailure>
            do {
                let magic = try DescriptorIO.read(0, count: 4, deadline: nil)
                guard magic == WorkerMessage.magic else { exit(2) }
                let nameLength = Int(WorkerMessage.integer(try DescriptorIO.read(0, count: 2, deadline: nil)))
                let name = String(decoding: try DescriptorIO.read(0, count: nameLength, deadline: nil), as: UTF8.self)
                let length = WorkerMessage.integer(try DescriptorIO.read(0, count: 8, deadline: nil))
                guard length <= UInt64(WorkerMessage.maxPayload) else { exit(2) }
                let payload = try DescriptorIO.read(0, count: Int(length), deadline: nil)
                if let job = jobs[name] {
                    do {
                        result = .success(try job(payload))
                    } catch let error as WorkerReportableError {
                        result = .failure(error.workerFailure)
                    } catch {
                        result = .failure(WorkerFailure(code: "failed", message: String(describing: error)))
                    }
                } else {
                    result = .failure(WorkerFailure(code: "unknownJob", message: "this worker has no job named \(name)"))
                }
            } catch {
                exit(0)  // the pool closed our input
            }
            do {
                try DescriptorIO.writeAll(1, WorkerMessage.reply(result))
            } catch {
                exit(0)
            }
        }
    }
}
