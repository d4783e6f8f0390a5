import AssetLoading
import AssetTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AssetPipeline

/// Every network fault through every loader path, round after round: the process's open
/// descriptors and resident memory must stay flat.
///
/// Off unless `ASSETPIPE_FAULT_SOAK=ROUNDS` is set: `scripts/fault-soak` runs it alone (other tests
/// running beside it would move both figures), with the timings scaled down (a trickle of a byte
/// every 20 ms against a one-second total timeout, a 500 ms read timeout) so that 1,000 rounds take
/// half an hour rather than days. Run it with `SWT_SWIFT_ERROR_BACKTRACING_ENABLED=0` (the script
/// does): Swift Testing otherwise keeps a backtrace for every error thrown during a test until the
/// test ends, and a soak that throws a hundred thousand errors grows by that cache (about 110 KiB a
/// round, measured with heaptrack), not by anything of the pipeline's. With
/// `ASSETPIPE_FAULT_SOAK_REPORT=FILE` it writes its samples and outcomes there as JSON.
@Suite("Network faults, repeated: descriptors and memory stay flat")
struct NetworkFaultSoakTests {
    static let rounds = ProcessInfo.processInfo.environment["ASSETPIPE_FAULT_SOAK"].flatMap(Int.init)

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func residentKiB() -> Int { ProcessMemory.value("VmRSS").map { $0 / 1024 } ?? -1 }

    /// Resident memory after glibc's `malloc_trim(0)` has handed the allocator's free pages back to
    /// the system, in KiB: what a leak grows, whereas plain resident memory also counts freed pages
    /// the allocator keeps for later. (`malloc_trim` is not in Swift's Glibc module; it is looked up.)
    static func residentAfterTrimKiB() -> Int {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return -1 }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        return residentKiB()
    }

    @Test(.enabled(if: rounds != nil, "set ASSETPIPE_FAULT_SOAK=ROUNDS (scripts/fault-soak) to run it"))
    func descriptorsAndMemoryStayFlat() async throws {
        let rounds = try #require(Self.rounds)
        let h = try await FaultHarness.start(
            timing: .init(trickleInterval: .milliseconds(20)),
            limits: .init(connect: .seconds(5), read: .milliseconds(500), total: .seconds(1)))
        let cases = NetworkFault.allCases.flatMap { fault in LoaderPath.allCases.map { (fault, $0) } }
        var outcomes: [String: [String: Int]] = [:]
        var samples: [(round: Int, fds: Int, rss: Int, trimmed: Int)] = []
        let started = ContinuousClock.now
        for round in 1...rounds {
            let results = await withTaskGroup(of: (name: String, label: String).self) { group in
                for (fault, path) in cases {
                    group.addTask {
                        let name = "\(fault)/\(path)"
                        guard let (outcome, url) = try? await h.run(fault, through: path, tag: "-\(round)") else {
                            return (name, "unexpected: the harness failed")
                        }
                        // nothing kept: every round starts from an empty cache, and the origin
                        // forgets the path (what grows is then the process under test, not the harness)
                        try? await VideoUtil(manager: h.manager).removeCached(address: url)
                        h.origin.removeHandler(FaultHarness.urlPath(fault, path, tag: "-\(round)"))
                        return (name, outcome.matches(NetworkFaultTests.expected(fault, path)) ? "as expected" : outcome.description)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for (name, label) in results { outcomes[name, default: [:]][label, default: 0] += 1 }
            // the memory caches emptied too: a decoded 256x256 bitmap memoized per round would
            // otherwise grow the process up to the image budget (128 MiB) and pass for a leak
            h.manager.trimMemory(toFraction: 0)
            if round == 1 || round % max(1, rounds / 50) == 0 || round == rounds {
                samples.append((round, Self.openDescriptors(), Self.residentKiB(), Self.residentAfterTrimKiB()))
            }
        }
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        let leaked = try await h.stop()
        #expect(leaked == 0)

        // flat: after the first tenth (pools, caches and the allocator warmed up) nothing grows
        let settled = samples.first { $0.round >= max(1, rounds / 10) } ?? samples[0]
        let last = samples[samples.count - 1]
        #expect(last.fds <= settled.fds + 8, "descriptors went from \(settled.fds) to \(last.fds)")
        // Memory is judged after malloc_trim: the allocator keeps freed pages of its arenas for reuse,
        // and over a 1,000-round run (65,000 loads on a dozen threads) plain resident memory rose by
        // about 20 MiB, most of it in the first half, while no live allocation grew (heaptrack). A
        // leak grows the trimmed figure; the plain one has only a loose bound.
        #expect(last.trimmed <= settled.trimmed + 16 * 1024, "resident memory after malloc_trim went from \(settled.trimmed) KiB to \(last.trimmed) KiB")
        #expect(last.rss <= settled.rss + 48 * 1024, "resident memory went from \(settled.rss) KiB to \(last.rss) KiB")
        let table = outcomes
        let typed = table.values.flatMap(\.keys).allSatisfy { !$0.contains("unexpected") }
        #expect(typed, "\(table)")

        if let path = ProcessInfo.processInfo.environment["ASSETPIPE_FAULT_SOAK_REPORT"] {
            var expected: [String: String] = [:]
            for (fault, loaderPath) in cases { expected["\(fault)/\(loaderPath)"] = NetworkFaultTests.expected(fault, loaderPath).description }
            let report: [String: Any] = [
                "rounds": rounds, "seconds": seconds, "loads": rounds * cases.count,
                "samples": samples.map { ["round": $0.round, "fds": $0.fds, "rssKiB": $0.rss, "trimmedKiB": $0.trimmed] },
                "outcomes": table, "expected": expected,
            ]
            try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        }
    }
}
