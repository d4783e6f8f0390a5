import AssetTestSupport
import Synchronization
import Testing
@testable import AssetPipeline

@Suite("TaskCoalescer and ByteBudget")
struct TaskCoalescerTests {
    struct Failure: Error {}

    /// A value that escaping closures can share.
    final class Shared<Value: Sendable>: Sendable {
        private let state: Mutex<Value>
        init(_ value: Value) { state = Mutex(value) }
        func update(_ body: (inout Value) -> Void) { state.withLock { body(&$0) } }
        var value: Value { state.withLock { $0 } }
    }

    @Test func concurrentCallersShareOneRun() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = TestGate()
        let runs = Shared(0)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await coalescer.value(forKey: "k") {
                        runs.update { $0 += 1 }
                        await gate.wait()
                        return 42
                    }
                }
            }
            try await UtilTestSupport.until("ten callers wait") { coalescer.waiterCount == 10 }
            gate.open()
            for try await value in group { #expect(value == 42) }
        }
        #expect(runs.value == 1)
        #expect(coalescer.startedCount == 1)
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func aCancelledCallerLeavesTheOthersWaiting() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = TestGate()
        let workCancelled = Shared(false)
        let work: @Sendable () async throws -> Int = {
            await gate.wait()
            if Task.isCancelled { workCancelled.update { $0 = true } }
            return 7
        }
        let first = Task { try await coalescer.value(forKey: "k", work: work) }
        let second = Task { try await coalescer.value(forKey: "k", work: work) }
        try await UtilTestSupport.until("two callers wait") { coalescer.waiterCount == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(coalescer.waiterCount == 1)
        gate.open()
        #expect(try await second.value == 7)
        #expect(!workCancelled.value)
        #expect(coalescer.startedCount == 1)
    }

    @Test func theWorkIsCancelledWhenTheLastCallerLeaves() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = TestGate()
        let finished = TestGate()
        let workCancelled = Shared(false)
        let caller = Task {
            try await coalescer.value(forKey: "k") {
                await gate.wait()  // returns on cancellation
                let cancelled = Task.isCancelled
                workCancelled.update { $0 = cancelled }
                finished.open()
                return 1
            }
        }
        try await UtilTestSupport.until("the caller waits") { coalescer.waiterCount == 1 }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        await finished.wait()
        #expect(workCancelled.value)
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func finishingWorkRunsOnWhenItsCallersLeaveAndLaterCallersJoinIt() async throws {
        let coalescer = TaskCoalescer<String, Int>(abandoned: .finish)
        let gate = TestGate()
        let workCancelled = Shared(false)
        let runs = Shared(0)
        let work: @Sendable () async throws -> Int = {
            runs.update { $0 += 1 }
            await gate.wait()
            let cancelled = Task.isCancelled
            workCancelled.update { $0 = cancelled }
            return 9
        }
        let caller = Task { try await coalescer.value(forKey: "k", work: work) }
        try await UtilTestSupport.until("the caller waits") { coalescer.waiterCount == 1 }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(coalescer.waiterCount == 0)
        #expect(coalescer.inFlightCount == 1)  // still running, for whoever comes next
        let later = Task { try await coalescer.value(forKey: "k", work: work) }
        try await UtilTestSupport.until("the later caller joins") { coalescer.waiterCount == 1 }
        gate.open()
        #expect(try await later.value == 9)
        #expect(runs.value == 1)
        #expect(coalescer.startedCount == 1)
        #expect(!workCancelled.value)
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func failuresReachEveryWaiterAndAreNotKept() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = TestGate()
        let work: @Sendable () async throws -> Int = {
            await gate.wait()
            throw Failure()
        }
        let callers = (0..<3).map { _ in Task { try await coalescer.value(forKey: "k", work: work) } }
        try await UtilTestSupport.until("three callers wait") { coalescer.waiterCount == 3 }
        gate.open()
        for caller in callers {
            await #expect(throws: Failure.self) { try await caller.value }
        }
        #expect(coalescer.startedCount == 1)
        // The next caller starts afresh.
        #expect(try await coalescer.value(forKey: "k") { 5 } == 5)
        #expect(coalescer.startedCount == 2)
    }

    @Test func theBudgetQueuesInOrderAndClampsLargeReservations() async throws {
        let budget = ByteBudget(capacity: 100)
        let first = try await budget.reserve(60)
        #expect(first == 60)
        let order = Shared<[String]>([])
        let large = Task {
            let held = try await budget.reserve(1_000)  // clamped: waits for everything, then runs alone
            order.update { $0.append("large") }
            budget.release(held)
        }
        try await UtilTestSupport.until("the large reservation waits") { budget.waiting == 1 }
        let small = Task {
            let held = try await budget.reserve(10)  // fits, but must not overtake the one in front
            order.update { $0.append("small") }
            budget.release(held)
        }
        try await UtilTestSupport.until("the small reservation waits") { budget.waiting == 2 }
        budget.release(first)
        try await large.value
        try await small.value
        #expect(order.value == ["large", "small"])
        #expect(budget.peak == 100)
        #expect(budget.held == 0)
    }

    @Test func aCancelledReservationHoldsNothingAndUnblocksThoseBehind() async throws {
        let budget = ByteBudget(capacity: 100)
        let first = try await budget.reserve(50)
        let blocked = Task { try await budget.reserve(100) }
        try await UtilTestSupport.until("the reservation waits") { budget.waiting == 1 }
        let behind = Task { try await budget.reserve(40) }
        try await UtilTestSupport.until("two reservations wait") { budget.waiting == 2 }
        blocked.cancel()
        await #expect(throws: CancellationError.self) { try await blocked.value }
        #expect(try await behind.value == 40)
        #expect(budget.held == 90)
        budget.release(40)
        budget.release(first)
        #expect(budget.held == 0)
    }
}
