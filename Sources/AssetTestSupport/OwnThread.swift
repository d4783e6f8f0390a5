import Foundation

/// `body` run on a thread of its own, awaited from async code: what blocks in it (a process's wait,
/// a socket's read, a sleep the test needs) blocks that thread, not one of the cooperative pool's,
/// on which the origins and servers of the test process answer.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// ``onOwnThread(_:)-(()->T)`` for a body that cannot throw.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// The path of `name`, a product of this package built beside the running test bundle (on Linux the
/// tests run from `<bin>/<Package>PackageTests.xctest`) or beside the running executable.
public func builtProduct(_ name: String) -> String {
    var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
    return dir.appendingPathComponent(name).path
}
