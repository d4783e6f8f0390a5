import AssetTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("ChildProcess")
struct ChildProcessTests {
    @Test func exitStatusesAndSignals() async throws {
        #expect(try ChildProcess.run("/bin/sh", ["-c", "exit 3"]).termination == .exited(3))
        #expect(try ChildProcess.run("sh", ["-c", "true"]).termination == .exited(0))  // looked up on the PATH
        let killed = try ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"]).termination
        #expect(killed == .signaled(SIGKILL) && killed.status == 128 + SIGKILL)
        #expect(throws: (any Error).self) { try ChildProcess("/nonexistent/program", []) }
    }

    @Test func pipesCarryTheStreams() async throws {
        let cat = try ChildProcess("/bin/sh", ["-c", "cat; echo done >&2"], stdin: .pipe)
        cat.standardInput!.write(Data("hello\n".utf8))
        try cat.standardInput!.close()
        #expect(cat.standardOutput!.readDataToEndOfFile() == Data("hello\n".utf8))
        #expect(cat.standardError!.readDataToEndOfFile() == Data("done\n".utf8))
        #expect(await cat.wait() == .exited(0))
        #expect(!cat.isRunning)
        let environment = try ChildProcess.run("/bin/sh", ["-c", "printf %s \"$ONLY\""], environment: ["ONLY": "this"])
        #expect(environment.stdout == Data("this".utf8))
    }

    @Test func theChildKeepsNoOtherDescriptorOfThisProcess() async throws {
        // one opened without close-on-exec, which a plain posix_spawn would pass on
        let held = open("/dev/null", O_RDONLY)
        defer { close(held) }
        #expect(fcntl(held, F_GETFD) & FD_CLOEXEC == 0)
        let listing = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"])
        let descriptors = String(decoding: listing.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        // the shell's 0, 1 and 2, and the one ls holds on the directory (the shell may hold one more)
        #expect(!descriptors.contains(Int(held)), "\(descriptors)")
        #expect(descriptors.filter { $0 > 2 }.count <= 2, "\(descriptors)")
    }

    @Test func aRunningChildIsSeenRunningAndCanBeSignalled() async throws {
        let sleeper = try ChildProcess("/bin/sh", ["-c", "exec sleep 30"], stdout: .null, stderr: .null)
        #expect(sleeper.isRunning)
        sleeper.send(SIGTERM)
        #expect(await sleeper.wait() == .signaled(SIGTERM))
        #expect(!sleeper.isRunning)
    }
}
