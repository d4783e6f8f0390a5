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
