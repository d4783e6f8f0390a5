import ArgumentParser
import AssetCodecs
import Foundation

/// Decodes image files in-process in a loop and reports the median throughput and peak memory.
///
/// Two modes per file: `reused` decodes into one buffer allocated once (what a decode loop or a
/// pool of buffers does), `new-bitmap` makes a fresh `Bitmap` per decode (the simple API, which
/// pays for mapping and page-faulting new memory on large images).
struct DecodeBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decodes PNG/JPEG files to RGBA in-process; prints MP/s (median of many runs) and peak memory."
    )

    @Argument(help: "PNG or JPEG files to decode.")
    var files: [String]

    @Option(help: "Timed decodes per file and mode; the median is reported.")
    var runs = 30

    @Option(help: "Untimed decodes before timing.")
    var warmup = 3

    @Flag(help: "Print tab-separated lines (file, mode, width, height, median ms, MP/s, peak RSS MB) instead of a table.")
    var tsv = false

    func validate() throws {
        guard runs > 0, warmup >= 0 else { throw ValidationError("--runs must be positive and --warmup not negative") }
    }

    func run() async throws {
        if !tsv {
            print("| file | mode | size | median ms | MP/s | peak RSS MB |")
            print("|---|---|---|---:|---:|---:|")
        }
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let decoder = ImageDecoder()
            let header = try decoder.header(of: data)
            let megapixels = Double(header.width * header.height) / 1e6
            for mode in ["reused", "new-bitmap"] {
                resetPeakMemory()
                let median = try measure(mode: mode, data: data, decoder: decoder, header: header)
                let peak = Double(peakResidentBytes()) / 1_048_576
                let seconds = Double(median.components.attoseconds) / 1e18 + Double(median.components.seconds)
                let name = (file as NSString).lastPathComponent
                let fields = [
                    name, mode, "\(header.width)x\(header.height)", String(format: "%.3f", seconds * 1000),
                    String(format: "%.1f", megapixels / seconds), String(format: "%.1f", peak),
                ]
                print(tsv ? fields.joined(separator: "\t") : "| " + fields.joined(separator: " | ") + " |")
            }
        }
    }

    private func measure(mode: String, data: Data, decoder: ImageDecoder, header: ImageHeader) throws -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        if mode == "reused" {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: header.width * header.height * 4, alignment: 64)
            defer { buffer.deallocate() }
            for index in 0..<(warmup + runs) {
                let start = clock.now
                _ = try decoder.decode(data, into: buffer)
                if index >= warmup { times.append(clock.now - start) }
            }
        } else {
            for index in 0..<(warmup + runs) {
                let start = clock.now
                let decoded = try decoder.decode(data)
                if index >= warmup { times.append(clock.now - start) }
                precondition(decoded.bitmap.width == header.width)
            }
        }
        return times.sorted()[times.count / 2]
    }

    /// Resets the kernel's peak-RSS mark (VmHWM) to the current RSS.
    private func resetPeakMemory() {
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            try? handle.write(contentsOf: Data("5".utf8))
            try? handle.close()
        }
    }

    private func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }
}
