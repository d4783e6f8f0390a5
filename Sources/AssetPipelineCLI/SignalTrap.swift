import Dispatch
import Foundation
import Glibc
import Synchronization

/// Turns SIGINT and SIGTERM into a call of `handler` (once); a second signal exits at once.
final class SignalTrap: Sendable {
    /// Kept alive for as long as the trap (a released source stops delivering).
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]
    private let received: Received

    /// The first signal, shared by the handlers and the trap.
    private final class Received: Sendable {
        let value = Mutex<Int32?>(nil)
    }

    init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        let received = Received()
        var made: [any DispatchSourceSignal] = []
        for number in signals {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = received.value.withLock { received -> Bool in
                    guard received == nil else { return false }
                    received = number
                    return true
                }
                if first {
                    handler(number)
                } else {
                    FileHandle.standardError.write(Data("\nassetpipe: stopped at once\n".utf8))
                    exit(128 + number)
                }
            }
            source.resume()
            made.append(source)
        }
        self.received = received
        sources = made
    }

    /// The first signal received, if any.
    var signal: Int32? { received.value.withLock { $0 } }
}
