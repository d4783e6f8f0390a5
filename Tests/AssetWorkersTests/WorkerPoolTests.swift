import AssetCodecs
import AssetLottie
import AssetLottieRender
import AssetTestSupport
import AssetWorkers
import Foundation
import Synchronization
import Testing

@Suite("Worker processes: crashes, hangs and runaway allocations end a worker, not the caller")
struct WorkerPoolTests {
    static func pool(count: Int = 2, timeout: Duration = .seconds(20), memoryLimit: Int? = 1 << 30) -> WorkerPool {
        WorkerPool(configuration: .init(
            executable: builtProduct("RenderWorker"), count: count, timeout: timeout, memoryLimit: memoryLimit))
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func jobsRoundTripAndReportTheirErrors() async throws {
        let pool = Self.pool()
        defer { pool.shutdown() }
        let big = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try await pool.run("echo", payload: big) == big)
        #expect(try await pool.run("echo", payload: []) == [])
        do {
            _ = try await pool.run("refuse", payload: [])
            Issue.record("a refusal came back as a result")
        } catch {
            #expect(error.code == .failed)
            #expect(error.failure == WorkerFailure(code: "refused", message: "asked to refuse"))
        }
        do {
            _ = try await pool.run("no such job", payload: [])
            Issue.record("an unknown job came back as a result")
        } catch {
            #expect(error.failure?.code == "unknownJob")
        }
        // failures leave the worker alive: one process did all of it
        #expect(pool.statistics.started == 1)
        #expect(pool.statistics.done == 2 && pool.statistics.failed == 2)
    }

    @Test func aCrashIsAnErrorAndTheNextJobGetsANewWorker() async throws {
        let pool = Self.pool(count: 1)
        defer { pool.shutdown() }
        let first = Self.text(try await pool.run("pid", payload: []))
        do {
            _ = try await pool.run("crash", payload: [])
            Issue.record("a crash came back as a result")
        } catch {
            #expect(error.code == .crashed)
            #expect(error.message.contains("signaled(\(SIGABRT))"))
        }
        let second = Self.text(try await pool.run("pid", payload: []))
        #expect(first != second)
        do {
            _ = try await pool.run("garbage", payload: [])
            Issue.record("garbage came back as a result")
        } catch {
            #expect(error.code == .crashed)
        }
        #expect(try await pool.run("echo", payload: [1, 2, 3]) == [1, 2, 3])
        #expect(pool.statistics.crashed == 2)
        #expect(pool.statistics.started == 3)
        #expect(pool.statistics.running == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aHangIsKilledAtTheTimeout() async throws {
        // room for a worker's start on a loaded machine (its first job's time includes it)
        let pool = Self.pool(count: 1, timeout: .seconds(3))
        defer { pool.shutdown() }
        let pid = Int32(Self.text(try await pool.run("pid", payload: [])))!
        let start = ContinuousClock.now
        do {
            _ = try await pool.run("hang", payload: [])
            Issue.record("a hang came back as a result")
        } catch {
            #expect(error.code == .timedOut)
        }
        // killed at the timeout, not waited out (a loaded machine's worker start and reaping included)
        #expect(ContinuousClock.now - start < .seconds(30))
        // the hung worker is gone (killed and reaped), and a new one answers
        #expect(kill(pid, 0) != 0)
        #expect(try await pool.run("echo", payload: [7]) == [7])
    }

    @Test func aRunawayAllocationStopsAtTheMemoryLimit() async throws {
        let pool = Self.pool(count: 1, memoryLimit: 512 << 20)
        defer { pool.shutdown() }
        let answer = Self.text(try await pool.run("allocate", payload: []))
        // 64 MiB blocks under a 512 MiB address space (the runtime takes some of it)
        #expect(answer.hasPrefix("limited after "))
        let blocks = answer.split(separator: " ").compactMap { Int($0) }.first ?? .max
        #expect(blocks < 8)
    }

    @Test func jobsWaitForAFreeWorkerAndAllFinish() async throws {
        let pool = Self.pool(count: 2)
        defer { pool.shutdown() }
        let results = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for index in 0..<40 {
                group.addTask {
                    // every fifth one crashes its worker; the rest must not notice
                    if index % 5 == 0 {
                        do { _ = try await pool.run("crash", payload: []) } catch { return (index, []) }
                    }
                    return (index, try await pool.run("echo", payload: [UInt8(index)]))
                }
            }
            return try await group.reduce(into: [Int: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        for index in 0..<40 where index % 5 != 0 { #expect(results[index] == [UInt8(index)]) }
        #expect(pool.statistics.running <= 2)
        #expect(pool.statistics.crashed == 8)
    }

    @Test func aLottieFrameFromAWorkerEqualsTheOneRenderedHere() async throws {
        let pool = Self.pool()
        defer { pool.shutdown() }
        // lottie-docs' parenting sample (Fixtures/lottie, with its source and license): it moves
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/lottie/lottie-docs/parenting.json")
        let animation = try #require(try LottieDocumentReader().read(Data(contentsOf: fixtures)).animations.first?.animation)
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(animation)
        var frames: [[UInt8]] = []
        for time in [LottieFrameTime.frame(0), .progress(0.5)] {
            let here = try renderer.render(input, at: time, size: LottieFrameSize(width: 96))
            let reply = try await pool.run(LottieFrameJob.name, payload: LottieFrameJob.request(input, at: time, size: LottieFrameSize(width: 96)))
            let there = try LottieFrameJob.bitmap(fromReply: reply)
            #expect(there.width == 96 && there.height == here.height)
            #expect(there.pixels == here.pixels)
            frames.append(there.pixels)
        }
        #expect(frames[0] != frames[1])
        // the renderer's refusal comes back typed
        do {
            _ = try await pool.run(LottieFrameJob.name, payload: LottieFrameJob.request(input, at: .frame(input.frameCount), size: .natural))
            Issue.record("a frame out of range was rendered")
        } catch {
            #expect(error.failure.map(LottieRenderError.init(workerFailure:)) == .frameOutOfRange)
        }
    }

    @Test func replyBytesThatAreNotABitmapAreRefused() {
        #expect(throws: LottieRenderError.renderFailed) { try LottieFrameJob.bitmap(fromReply: [1, 2, 3]) }
        var short: [UInt8] = [4, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0]
        short += [UInt8](repeating: 0, count: 63)
        #expect(throws: LottieRenderError.renderFailed) { try LottieFrameJob.bitmap(fromReply: short) }
        #expect(throws: LottieRenderError.renderFailed) { try LottieFrameJob.handle([1, 2, 3]) }
    }
}

/// A job's reads of its source: answered by the parent between the request and the reply.
@Suite struct WorkerReadTests {
    static func request(offset: UInt64, count: UInt64) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 12)
        writer.append(offset)
        writer.append(count, width: 4)
        return writer.bytes
    }

    @Test func aJobReadsItsSourceFromTheParent() async throws {
        let pool = WorkerPoolTests.pool(count: 1)
        defer { pool.shutdown() }
        let source = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let asked = Mutex<[Range<Int64>]>([])
        let reads: WorkerPool.Reads = { offset, count in
            asked.withLock { $0.append(offset..<offset + Int64(count)) }
            guard offset < Int64(source.count) else { return [] }
            return Array(source[Int(offset)..<min(source.count, Int(offset) + count)])
        }
        #expect(try await pool.run("read", payload: Self.request(offset: 100, count: 50), reads: reads) == Array(source[100..<150]))
        #expect(try await pool.run("read", payload: Self.request(offset: 9_990, count: 50), reads: reads) == Array(source[9_990...]))
        #expect(asked.withLock { $0 } == [100..<150, 9_990..<10_040])
        // a failed read, and a job started without reads, get nil
        #expect(WorkerPoolTests.text(try await pool.run("read", payload: Self.request(offset: 0, count: 1)) { _, _ in nil }) == "nil")
        #expect(WorkerPoolTests.text(try await pool.run("read", payload: Self.request(offset: 0, count: 1))) == "nil")
        // more bytes than asked are cut to the count
        #expect(try await pool.run("read", payload: Self.request(offset: 0, count: 3)) { _, _ in [1, 2, 3, 4, 5] } == [1, 2, 3])
        #expect(pool.statistics.started == 1 && pool.statistics.done == 5)
    }
}
