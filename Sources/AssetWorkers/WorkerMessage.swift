#if canImport(Glibc)
import Glibc
#endif

/// The messages between a ``WorkerPool`` and its workers, over the worker's standard input and
/// output: a request names a job and carries its payload; a reply carries the result or an error.
///
/// ```
/// request: "APW1" | u16 name length | name (UTF-8) | u64 payload length | payload
/// reply:   "APW1" | u8 status (0 done, 1 failed, 2 a read) | u64 payload length | payload
/// read:    payload = u64 offset | u32 count          (a job asks its parent for source bytes)
/// answer:  "APW1" | u8 status (0 bytes, 1 failed) | u64 length | at most count bytes
/// ```
/// A job may send any number of reads before its reply; each gets its answer on the worker's
/// input. Integers are little-endian. A failure's payload is `code` and `message` in UTF-8,
/// separated by a newline. Lengths past ``maxPayload`` end the exchange: the other side is broken
/// or hostile.
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

    /// A job's read of `count` source bytes at `offset`, sent to the parent.
    static func read(offset: Int64, count: Int) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 25)
        writer.append(contentsOf: magic)
        writer.append(byte: 2)
        writer.append(UInt64(12))
        writer.append(UInt64(bitPattern: offset))
        writer.append(UInt64(count), width: 4)
        return writer.bytes
    }

    /// The parent's answer to a read: the bytes, or nil when the read failed.
    static func answer(_ bytes: [UInt8]?) -> [UInt8] {
        var writer = WorkerPayloadWriter(capacity: 13 + (bytes?.count ?? 0))
        writer.append(contentsOf: magic)
        writer.append(byte: bytes == nil ? 1 : 0)
        writer.append(UInt64(bytes?.count ?? 0))
        writer.append(contentsOf: bytes ?? [])
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
