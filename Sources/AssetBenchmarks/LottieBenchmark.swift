import ArgumentParser
import AssetLottie
import Foundation

/// Parses Lottie JSON files in-process in a loop: our byte-level parser into `LottieAnimation`
/// (lenient, and strict: parse plus validation against the Lottie 1.0 schema and our checks, where an
/// invalid file ends in its list of problems), and Foundation's `JSONDecoder` into an equivalent
/// Codable model (`LottieBenchmark.CodableAnimation`, untyped content as a generic JSON enum) and into
/// the typed fields alone (`SkeletonAnimation`).
///
/// Each parser runs `--rounds` timed rounds over all files (each round parses every file enough
/// times to last about `--round-seconds`); the median round's MB/s (10^6 bytes) is reported.
struct LottieBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lottie",
        abstract: "Parses Lottie JSON files in-process (ours vs JSONDecoder); prints MB/s (median round)."
    )

    @Argument(help: "Lottie JSON files to parse.")
    var files: [String]

    @Option(help: "Timed rounds per parser; the median is reported.")
    var rounds = 7

    @Option(help: "Approximate length of one round, in seconds.")
    var roundSeconds = 0.3

    @Flag(help: "Print tab-separated lines (parser, MB/s, bytes per round) instead of a table.")
    var tsv = false

    func validate() throws {
        guard rounds > 0, roundSeconds > 0 else { throw ValidationError("--rounds and --round-seconds must be positive") }
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
    }

    func run() async throws {
        let inputs = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let parser = LottieParser()
        let decoder = JSONDecoder()
        // Both parsers must accept every input and agree on the basics before anything is timed.
        for (file, data) in zip(files, inputs) {
            let ours = try parser.parse(data)
            let theirs = try decoder.decode(CodableAnimation.self, from: data)
            guard ours.layerCount == (theirs.layers?.count ?? 0), ours.frameRate == theirs.fr else {
                throw ValidationError("\(file): the two parsers disagree")
            }
        }
        let oursRate = try measure(inputs) { data in _ = try parser.parse(data) }
        let strictParser = LottieParser(configuration: .strict)
        let strictRate = try measure(inputs) { data in _ = try? strictParser.parse(data) }
        let decoderRate = try measure(inputs) { data in _ = try decoder.decode(CodableAnimation.self, from: data) }
        let skeletonRate = try measure(inputs) { data in _ = try decoder.decode(SkeletonAnimation.self, from: data) }
        let bytes = inputs.reduce(0) { $0 + $1.count }
        if tsv {
            print("ours\t\(String(format: "%.1f", oursRate))\t\(bytes)")
            print("ours-strict\t\(String(format: "%.1f", strictRate))\t\(bytes)")
            print("JSONDecoder\t\(String(format: "%.1f", decoderRate))\t\(bytes)")
            print("JSONDecoder-skeleton\t\(String(format: "%.1f", skeletonRate))\t\(bytes)")
        } else {
            print("| parser | MB/s | ours / this |")
            print("|---|---:|---:|")
            print("| AssetLottie (typed model) | \(String(format: "%.1f", oursRate)) | 1.00 |")
            print("| AssetLottie, strict (model + Lottie 1.0 schema + checks) | \(String(format: "%.1f", strictRate)) | \(String(format: "%.2f", oursRate / strictRate)) |")
            print("| JSONDecoder (Codable model) | \(String(format: "%.1f", decoderRate)) | \(String(format: "%.2f", oursRate / decoderRate)) |")
            print("| JSONDecoder (typed fields only) | \(String(format: "%.1f", skeletonRate)) | \(String(format: "%.2f", oursRate / skeletonRate)) |")
        }
    }

    /// The median MB/s of `rounds` rounds, each parsing every input `repeats` times.
    private func measure(_ inputs: [Data], _ body: (Data) throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        let bytesPerPass = Double(inputs.reduce(0) { $0 + $1.count })
        // Warm up and size the rounds.
        let start = clock.now
        for data in inputs { try body(data) }
        let onePass = max(1e-6, (clock.now - start).seconds)
        let repeats = max(1, Int(roundSeconds / onePass))
        var rates: [Double] = []
        for _ in 0..<rounds {
            let begin = clock.now
            for _ in 0..<repeats {
                for data in inputs { try body(data) }
            }
            rates.append(bytesPerPass * Double(repeats) / (clock.now - begin).seconds / 1e6)
        }
        return rates.sorted()[rates.count / 2]
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
