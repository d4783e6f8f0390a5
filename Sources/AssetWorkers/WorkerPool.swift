import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Why a job did not come back from a worker.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    /// What happened to the job.
    public enum Code: String, Sendable {
        /// The worker died during the job (a signal, an exit): the job crashed it, or ran out of
        /// the memory limit. A new worker takes its place.
        case crashed
        /// The job ran past the pool's timeout; the worker was killed and is replaced.
        case timedOut
        /// The job failed and said why (``failure``); the worker lives on.
        case failed
        /// No worker could be started, or the pool is shut down.
        case unavailable
    }

    /// What happened to the job.
    public let code: Code
    /// What went wrong, for people.
    public let message: String
    /// The job's own code and message, for ``Code/failed``.
    public let failure: WorkerFailure?

    init(_ code: Code, _ message: String, failure: WorkerFailure? = nil) {
        self.code = code
        self.message = message
        self.failure = failure
    }

    /// The code and the message: `crashed: <message>`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// A small pool of worker processes that run jobs on untrusted input with C and C++ libraries
/// (rlottie, FFmpeg's): a crash, a hang or a runaway allocation in a job ends that worker, never the
/// process that asked, and the job ends as a ``WorkerError``.
///
/// - Workers are the program ``Configuration-swift.struct/executable`` with
///   ``Configuration-swift.struct/arguments`` (for `assetpipe`, `worker`), serving with
///   ``WorkerLoop``; they start on first use, at most ``Configuration-swift.struct/count``, and a
///   worker that died is replaced by the next job that needs one.
/// - Each job has ``Configuration-swift.struct/timeout``; past it the worker is killed (`SIGKILL`).
/// - Each worker limits its own address space to ``Configuration-swift.struct/memoryLimit``.
/// - Jobs wait for a free worker in order; the exchange with a worker runs on a thread of its own,
///   never on Swift's cooperative pool.
/// - Creating a pool sets `SIGPIPE` to be ignored in this process: a worker that dies while a
///   request is written to it must not take the writer down.
public final class WorkerPool: Sendable {
    /// The worker program, how many workers, and each job's limits.
    public struct Configuration: Sendable {
        /// The worker program's path.
        public var executable: String
        /// Its arguments.
        public var arguments: [String]
        /// The most workers at once.
        public var count: Int
        /// How long one job may take.
        public var timeout: Duration
        /// Each worker's address-space limit in bytes (nil: none).
        public var memoryLimit: Int?

        /// A configuration; every parameter but the executable defaults to the value documented on
        /// its property (2 workers, 30 s, 2 GiB).
        public init(executable: String, arguments: [String] = [], count: Int = 2, timeout: Duration = .seconds(30),
                    memoryLimit: Int? = 2 << 30) {
            self.executable = executable
            self.arguments = arguments
            self.count = count
            self.timeout = timeout
            self.memoryLimit = memoryLimit
        }
    }

    /// What the pool has done so far.
    public struct Statistics: Sendable, Equatable {
        /// Workers started.
        public var started = 0
        /// Jobs done.
        public var done = 0
        /// Jobs that failed with the job's own error (the worker lived on).
        public var failed = 0
        /// Jobs that crashed their worker.
        public var crashed = 0
        /// Jobs that ran past the timeout.
        public var timedOut = 0
        /// Workers running now.
        public var running = 0
    }

    /// The pool's program, size and limits.
    public let configuration: Configuration

    private final class Worker: Sendable {
        let process: ChildProcess
        let input: Int32
        let output: Int32

        init(_ process: ChildProcess) {
            self.process = process
            self.input = process.standardInput!.fileDescriptor
            self.output = process.standardOutput!.fileDescriptor
        }

        /// Kills and reaps it, and says how it ended.
        func end() -> ChildProcess.Termination {
            process.send(SIGKILL)
            return process.waitUntilExit()
        }
    }

    private struct State {
        var idle: [Worker] = []
        var live = 0
        /// Jobs waiting for a worker: resumed with one, or with nil to start one themselves.
        var waiting: [CheckedContinuation<Worker?, Never>] = []
        var closed = false
        var statistics = Statistics()
    }

    private let state = Mutex(State())

    /// A pool that starts workers as jobs need them.
    public init(configuration: Configuration) {
        self.configuration = configuration
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { shutdown() }

    /// What the pool has done so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// What a job may read from its parent while it runs: `count` bytes at `offset` (fewer only
    /// at the source's end), or nil when they cannot be had. Called on a thread of the pool's own
    /// (not Swift's cooperative pool), so it may block.
    public typealias Reads = @Sendable (_ offset: Int64, _ count: Int) -> [UInt8]?

    /// Runs `job` with `payload` on a worker and returns its result. `reads` answers the job's
    /// ``WorkerLoop/readFromParent(offset:count:)`` calls (a job that reads without it gets nil);
    /// the time they take counts in the job's timeout.
    /// - Throws: ``WorkerError``.
    public func run(_ job: String, payload: [UInt8], reads: Reads? = nil) async throws(WorkerError) -> [UInt8] {
        let worker = try await acquire()
        let request = WorkerMessage.request(job: job, payload: payload)
        let timeout = configuration.timeout
        let outcome: (Result<[UInt8], WorkerError>, alive: Bool) = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Self.exchange(worker, request, timeout: timeout, reads: reads)) }.start()
        }
        release(worker, alive: outcome.alive, outcome: outcome.0)
        return try outcome.0.get()
    }

    /// Ends every idle worker (closing its input) and refuses new jobs; jobs running finish.
    public func shutdown() {
        let idle = state.withLock { state -> [Worker] in
            state.closed = true
            defer { state.idle.removeAll() }
            state.live -= state.idle.count
            state.statistics.running = state.live
            for waiter in state.waiting { waiter.resume(returning: nil) }
            state.waiting.removeAll()
            return state.idle
        }
        for worker in idle {
            try? worker.process.standardInput?.close()
            _ = worker.process.waitUntilExit()
        }
    }

    private enum Claim { case worker(Worker), start, wait, closed }

    /// An idle worker, else a slot to start one in (counted in `live` at once), else nothing.
    private func claim(_ state: inout State) -> Claim {
        if state.closed { return .closed }
        if let worker = state.idle.popLast() { return .worker(worker) }
        guard state.live < max(1, configuration.count) else { return .wait }
        state.live += 1
        state.statistics.running = state.live
        return .start
    }

    private func acquire() async throws(WorkerError) -> Worker {
        var next = state.withLock { claim(&$0) }
        if case .wait = next {
            // in line until a job hands its worker over (or its dead worker's slot: nil)
            let handed: Worker? = await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Claim in
                    let now = claim(&state)
                    if case .wait = now { state.waiting.append(continuation) }
                    return now
                }
                switch now {
                case .worker(let worker): continuation.resume(returning: worker)
                case .start, .closed: continuation.resume(returning: nil)
                case .wait: break
                }
            }
            next = handed.map(Claim.worker) ?? (state.withLock({ $0.closed }) ? .closed : .start)
        }
        switch next {
        case .worker(let worker): return worker
        case .start: return try start()
        case .closed, .wait: throw WorkerError(.unavailable, "the worker pool is shut down")
        }
    }

    /// Starts a worker for a slot already counted in `live`.
    private func start() throws(WorkerError) -> Worker {
        var environment = ProcessInfo.processInfo.environment
        if let limit = configuration.memoryLimit { environment[WorkerLoop.memoryLimitVariable] = String(limit) }
        // a crash is an answer here, not something to spend seconds symbolicating
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        do {
            let process = try ChildProcess(
                configuration.executable, configuration.arguments, environment: environment, stdin: .pipe, stdout: .pipe,
                stderr: .inherit)
            state.withLock { $0.statistics.started += 1 }
            return Worker(process)
        } catch {
            releaseSlot()
            throw WorkerError(.unavailable, "could not start \(configuration.executable): \(error)")
        }
    }

    private func release(_ worker: Worker, alive: Bool, outcome: Result<[UInt8], WorkerError>) {
        enum Then { case handOver(CheckedContinuation<Worker?, Never>), kept, end, freed }
        let then = state.withLock { state -> Then in
            switch outcome {
            case .success: state.statistics.done += 1
            case .failure(let error):
                switch error.code {
                case .crashed: state.statistics.crashed += 1
                case .timedOut: state.statistics.timedOut += 1
                case .failed: state.statistics.failed += 1
                case .unavailable: break
                }
            }
            if alive, !state.closed {
                if state.waiting.isEmpty {
                    state.idle.append(worker)
                    return .kept
                }
                return .handOver(state.waiting.removeFirst())
            }
            return alive ? .end : .freed
        }
        switch then {
        case .handOver(let waiter): waiter.resume(returning: worker)
        case .kept: break
        case .end:
            try? worker.process.standardInput?.close()
            _ = worker.process.waitUntilExit()
            releaseSlot()
        case .freed: releaseSlot()
        }
    }

    /// Gives a dead worker's slot to the first job waiting (which starts a worker), or frees it.
    private func releaseSlot() {
        let waiter = state.withLock { state -> CheckedContinuation<Worker?, Never>? in
            if !state.closed, !state.waiting.isEmpty { return state.waiting.removeFirst() }
            state.live -= 1
            state.statistics.running = state.live
            return nil
        }
        waiter?.resume(returning: nil)
    }

    /// One request and its reply, on the calling thread; whether the worker is still usable.
    private static func exchange(
        _ worker: Worker, _ request: [UInt8], timeout: Duration, reads: Reads?
    ) -> (Result<[UInt8], WorkerError>, alive: Bool) {
        let deadline = ContinuousClock.now + timeout
        func died(_ what: String) -> (Result<[UInt8], WorkerError>, alive: Bool) {
            let termination = worker.end()
            return (.failure(WorkerError(.crashed, "the worker \(what) (\(termination))")), false)
        }
        do throws(DescriptorIO.Failure) {
            try DescriptorIO.writeAll(worker.input, request)
            var head = try DescriptorIO.read(worker.output, count: 13, deadline: deadline)
            while head[4] == 2 {
                // a read of the job's source: answered, then the job goes on
                guard Array(head[0..<4]) == WorkerMessage.magic, WorkerMessage.integer(Array(head[5..<13])) == 12 else {
                    return died("sent a malformed read")
                }
                var fields = WorkerPayloadReader(try DescriptorIO.read(worker.output, count: 12, deadline: deadline))
                guard let offset = fields.word(), let count = fields.word(width: 4), Int64(bitPattern: offset) >= 0 else {
                    return died("sent a malformed read")
                }
                var bytes = reads?(Int64(bitPattern: offset), Int(count))
                if let read = bytes, read.count > Int(count) { bytes = Array(read.prefix(Int(count))) }
                guard ContinuousClock.now < deadline else { throw DescriptorIO.Failure.timedOut }
                try DescriptorIO.writeAll(worker.input, WorkerMessage.answer(bytes))
                head = try DescriptorIO.read(worker.output, count: 13, deadline: deadline)
            }
            guard Array(head[0..<4]) == WorkerMessage.magic else { return died("answered with bytes that are not a reply") }
            let length = WorkerMessage.integer(Array(head[5..<13]))
            guard length <= UInt64(WorkerMessage.maxPayload) else { return died("announced a reply of \(length) bytes") }
            let payload = try DescriptorIO.read(worker.output, count: Int(length), deadline: deadline)
            if head[4] == 0 { return (.success(payload), true) }
            let text = String(decoding: payload, as: UTF8.self)
            let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            let failure = WorkerFailure(code: String(parts[0]), message: parts.count > 1 ? String(parts[1]) : "")
            return (.failure(WorkerError(.failed, failure.message, failure: failure)), true)
        } catch .timedOut {
            _ = worker.end()
            return (.failure(WorkerError(.timedOut, "the job ran past \(timeout); the worker was killed")), false)
        } catch {
            return died("ended during the job")
        }
    }
}
