import Foundation
import ZIPFoundation

/// Raw deflate decompression (zip entries, gzip members) with bounded output, through
/// ZIPFoundation's zlib-backed `Data.decompress`.
///
/// `Data.decompress` tells zlib that every input chunk is `bufferSize` bytes long and keeps asking
/// for input until the stream ends, so a short or missing chunk would make zlib read past the
/// buffer or loop forever on a truncated stream. The provider here therefore always hands over
/// exactly `bufferSize` bytes (zero-padded after the end) and fails once the input is used up.
enum Inflater {
    private static let bufferSize = 64 << 10

    private enum Failure: Error {
        case truncated
        case tooLarge
    }

    /// The inflated bytes and their CRC-32.
    static func inflate(_ input: Data, maxOutputBytes: Int, what: String) throws(LottieError) -> (data: Data, crc32: UInt32) {
        var output = Data()
        let crc: CRC32
        do {
            crc = try Data.decompress(
                size: Int64(input.count), bufferSize: bufferSize, skipCRC32: false,
                provider: { position, _ in
                    let start = Int(position)
                    guard start < input.count else { throw Failure.truncated }
                    var chunk = input.subdata(in: (input.startIndex + start)..<(input.startIndex + min(input.count, start + bufferSize)))
                    if chunk.count < bufferSize { chunk.append(Data(count: bufferSize - chunk.count)) }
                    return chunk
                },
                consumer: { chunk in
                    guard output.count + chunk.count <= maxOutputBytes else { throw Failure.tooLarge }
                    output.append(chunk)
                })
        } catch Failure.tooLarge {
            throw LottieError.decompressedTooLarge.with("\(what) inflates to more than \(maxOutputBytes) bytes")
        } catch {
            throw LottieError.invalidCompressedData.with("\(what): corrupt or truncated deflate stream (\(error))")
        }
        return (output, crc)
    }
}
