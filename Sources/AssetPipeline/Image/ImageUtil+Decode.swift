import AssetCodecs
import AssetImaging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageUtil {
    /// Decodes bytes that are already here (a local file, a request body), off Swift's cooperative
    /// pool and within the decode budget, or in a worker process for the formats
    /// ``Configuration/decodeWorkers`` isolates. Nothing is cached.
    /// - Throws: `CodecError`; `ImagingError.decodeFailed` when a worker crashed or ran past its time.
    public func decode(_ data: Data, options: Options = Options()) async throws -> DecodedImage {
        try await decode(data, options: options, pixels: true)
    }

    /// Decodes `data` as ``decode(_:options:)`` does; without `pixels`, a format decoded in a worker
    /// (``Configuration/decodeWorkers``) sends back its header and warnings only, and the result's
    /// bitmap is empty (a check that the bytes decode, as a prefetch's validation makes).
    func decode(_ data: Data, options: Options, pixels: Bool) async throws -> DecodedImage {
        let decoderConfiguration = options.decoderConfiguration(maxInputBytes: configuration.maxInputBytes)
        if let workers = configuration.workers(for: data) {
            decodes.add(1, ordering: .relaxed)
            return try await ImageDecodeJob.run(on: workers, source: data, configuration: decoderConfiguration, pixels: pixels)
        }
        let decoder = ImageDecoder(configuration: decoderConfiguration)
        // The header is cheap, but libpng reads (and inflates) the chunks before the pixels: off the pool too.
        let header = try await runDecoding { try decoder.header(of: data) }
        let bytes = Self.estimatedDecodeBytes(inputBytes: data.count, header: header, decoder: decoder)
        return try await decodeBudget.withReservation(of: bytes) {
            try await runDecoding { [self] in
                self.decodes.add(1, ordering: .relaxed)
                return try decoder.decode(data)
            }
        }
    }

    /// Decodes `data` on the calling thread with `options` (for a command-line tool, or a caller
    /// that is already on a thread of its own). Nothing is cached.
    /// - Throws: `CodecError`.
    public static func decode(_ data: Data, options: Options = Options(), maxInputBytes: Int = 256 << 20) throws -> DecodedImage {
        try ImageDecoder(configuration: options.decoderConfiguration(maxInputBytes: maxInputBytes)).decode(data)
    }

    /// What a decode holds at its peak, as reserved from the budget: the input, the full-size RGBA
    /// pixels (the output, or the scratch a downscaling decode resizes from), and the scaled output
    /// when it differs. An upper bound: a JPEG scaled by libjpeg-turbo decodes into less.
    static func estimatedDecodeBytes(inputBytes: Int, header: ImageHeader, decoder: ImageDecoder) -> Int {
        let full = header.width.multipliedReportingOverflow(by: header.height * 4)
        var total = full.overflow ? Int.max : full.partialValue
        let output = decoder.outputSize(for: header)
        if output.width != header.width || output.height != header.height {
            total = total.addingReportingOverflow(output.width * output.height * 4).partialValue
        }
        let sum = total.addingReportingOverflow(inputBytes)
        return sum.overflow ? Int.max : sum.partialValue
    }

    /// Runs CPU-heavy work on the decode pool, or the manager's I/O threads.
    func runDecoding<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if let pool = configuration.decodePool {
            return try await pool.runIfActive(body)
        }
        return try await manager.runIO(body)
    }
}

extension CodecError {
    /// An error that says the bytes are bad (corrupt, truncated, unsupported, too large), not that
    /// the caller's buffer was.
    var isDataError: Bool {
        self == .corrupt || self == .truncated || self == .unsupported || self == .tooLarge
    }
}
