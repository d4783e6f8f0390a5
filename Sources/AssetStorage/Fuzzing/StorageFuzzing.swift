import Foundation

/// One input through a parser of this module, for the libFuzzer targets (`scripts/fuzz`) and for
/// the regression tests that replay what they found (`Fixtures/fuzz/`).
///
/// Each entry returns nil when the parser kept its promises on the input, or which promise it
/// broke; a crash is a finding too. Not part of the library's API.
@_spi(Fuzzing)
public enum StorageFuzzing {
    /// A chunk store's record file: a record that reads back claims only chunks of the lengths its
    /// total length allows, and written out reads back equal.
    public static func chunkRecord(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count <= ChunkRecord.maxFileSize, let record = ChunkRecord(jsonBytes: Array(bytes)) else { return nil }
        for (index, chunk) in record.chunks where record.expectedLength(ofChunk: index) != chunk.length {
            return "chunk \(index) of \(chunk.length) bytes, where the record allows \(record.expectedLength(ofChunk: index).map(String.init) ?? "none")"
        }
        _ = record.chunkCount
        _ = record.presentBytes
        guard let again = ChunkRecord(jsonBytes: record.jsonBytes) else { return "the record's own bytes do not read back" }
        if again != record { return "the record reads back different" }
        return nil
    }
}
