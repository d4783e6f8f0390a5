#if canImport(Glibc)
import Glibc
#endif

/// The messages between a ``WorkerPool`` and its workers, over the worker's standard input and
/// output: a request names a job and carries its payload; a reply carries the result or an error.
///
/// ```
/// request: "APW1" | u16 name length | name (UTF-8) | u64 payload length | payload
/// reply:   "APW1" | u8 status (0 done, 1 failed) | u64 payload length | payload
/// ```
/// Integers are little-endian. A failure's payload is `code` and `message` in UTF-8, separated by a
/// newline. Lengths past ``maxPayload`` end the exchange: the other side is broken or hostile.
enum WorkerMessage {
    static let magic: [UInt8] = Array("APW1".utf8)
    /// The largest payload either side accepts: 1 GiB.
    static let maxPayload = 1 << 30

    static func request(job: String, payload: [UInt8]) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 16 + job.utf8.count + payload.count)
        writer.append(contentsOf: magic)
        writer.append(UInt64(job.utf8.count), width: 2)
        writer.append(contentsOf: job.utf8)
        writer.append(UInt64(payload.count))
        writer.append(contentsOf: payload)
        return writer.bytes
    }

    static func reply(_ result: Result<[UInt8], WorkerFailure>) -> [UInt8] {
        let (status, payload): (UInt8, [UInt8]) = switch result {
        case .success(let done): (0, done)
        case .failure(let failure): (1, Array("\(failure.code)\n\(failure.message)".utf8))
        }
        var writer = WorkerPayloadWriter(capacity: 13 + payload.count)
        writer.append(contentsOf: magic)
        writer.append(byte: status)
        writer.append(UInt64(payload.count))
        writer.append(contentsOf: payload)
        return writer.bytes
    }

    /// The little-endian integer of `bytes` (all of them).
    static func integer(_ bytes: [UInt8]) -> UInt64 {
        var reader = WorkerPayloadReader(bytes)
        return reader.word(width: bytes.count) ?? 0
    }
}

/// A job's failure as a worker reports it: a code (a typed error's short form, such as
/// `renderFailed`) and a message for people.
public struct WorkerFailure: Error, Sendable, Equatable {
    /// The failure's code (a typed error's short form).
    public var code: String
    /// What went wrong, for people.
    public var message: String

    /// A failure with `code` and `message`.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
