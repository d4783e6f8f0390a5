import AssetWorkers

/// ``ImageProcessor/Configuration-swift.struct`` in and out of a worker job's payload.
enum ProcessorConfigurationCoding {
    static func write(_ configuration: ImageProcessor.Configuration, to writer: inout WorkerPayloadWriter) {
        for value in [
            configuration.maxSourcePixels, configuration.maxInputBytes, configuration.maxOutputPixels,
            configuration.maxOutputDimension, configuration.maxOutputBytes, configuration.avifSpeed,
            configuration.avifThreads, configuration.webpMethod,
        ] {
            writer.append(UInt64(clamping: max(0, value)))
        }
        writer.append(configuration.shrinkOnLoadMargin.bitPattern)
        let overlap: UInt8 = switch configuration.overlapDecoding {
        case .off: 0
        case .whenCoresAreFree: 1
        case .always: 2
        }
        writer.append(byte: overlap)
        writer.append(UInt64(clamping: max(0, configuration.maxAnimationFrames)))
        writer.append(UInt64(clamping: max(0, configuration.maxAnimationPixels)))
    }

    static func read(_ reader: inout WorkerPayloadReader) -> ImageProcessor.Configuration? {
        var values: [Int] = []
        for _ in 0..<8 {
            guard let word = reader.word(), word <= UInt64(Int.max) else { return nil }
            values.append(Int(word))
        }
        guard let margin = reader.word(), let overlap = reader.byte(), overlap <= 2,
            let frames = reader.word(), frames <= UInt64(Int.max), let animationPixels = reader.word(),
            animationPixels <= UInt64(Int.max)
        else { return nil }
        return ImageProcessor.Configuration(
            maxSourcePixels: values[0], maxInputBytes: values[1], maxOutputPixels: values[2], maxOutputDimension: values[3],
            maxOutputBytes: values[4], avifSpeed: values[5], avifThreads: values[6], webpMethod: values[7],
            shrinkOnLoadMargin: Double(bitPattern: margin),
            overlapDecoding: overlap == 0 ? .off : overlap == 1 ? .whenCoresAreFree : .always,
            maxAnimationFrames: Int(frames), maxAnimationPixels: Int(animationPixels))
    }
}

/// The other parts the image jobs' payloads share: the formats a caller takes, and an encoded
/// image as a reply.
enum ImagingPayloadCoding {
    /// `u8 count (255: none given) | (u8 length | format name) per format`.
    static func write(accepted: [OutputFormat]?, to writer: inout WorkerPayloadWriter) {
        guard let accepted else { return writer.append(byte: 255) }
        writer.append(byte: UInt8(min(accepted.count, 254)))
        for format in accepted.prefix(254) {
            writer.append(byte: UInt8(format.rawValue.utf8.count))
            writer.append(contentsOf: format.rawValue.utf8)
        }
    }

    /// The formats ``write(accepted:to:)`` wrote: nil for none given.
    /// - Throws: ``ImagingError/invalidTransform`` for a malformed list.
    static func readAccepted(_ reader: inout WorkerPayloadReader) throws -> [OutputFormat]? {
        guard let count = reader.byte() else { throw ImagingError.invalidTransform("the worker got no list of formats") }
        if count == 255 { return nil }
        var formats: [OutputFormat] = []
        for _ in 0..<Int(count) {
            guard let size = reader.byte(), let name = reader.bytes(Int(size)),
                let format = OutputFormat(rawValue: String(decoding: name, as: UTF8.self))
            else { throw ImagingError.invalidTransform("the worker got a malformed list of formats") }
            formats.append(format)
        }
        return formats
    }

    /// `u8 length | format name | u64 width | u64 height | encoded bytes`.
    static func reply(_ encoded: EncodedImage) -> [UInt8] {
        var reply = WorkerPayloadWriter(capacity: 32 + encoded.bytes.count)
        reply.append(byte: UInt8(encoded.format.rawValue.utf8.count))
        reply.append(contentsOf: encoded.format.rawValue.utf8)
        reply.append(UInt64(encoded.width))
        reply.append(UInt64(encoded.height))
        reply.append(contentsOf: encoded.bytes)
        return reply.bytes
    }

    /// The image of a ``reply(_:)``, or nil when it is not a whole one.
    static func encoded(fromReply reply: [UInt8]) -> EncodedImage? {
        var reader = WorkerPayloadReader(reply)
        guard let size = reader.byte(), let name = reader.bytes(Int(size)),
            let format = OutputFormat(rawValue: String(decoding: name, as: UTF8.self)),
            let width = reader.integer(), let height = reader.integer(), width > 0, height > 0
        else { return nil }
        return EncodedImage(bytes: Array(reader.rest), format: format, width: width, height: height)
    }
}
