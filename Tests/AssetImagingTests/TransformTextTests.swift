import AssetImaging
import Testing

@Suite struct TransformTextTests {
    @Test func theCanonicalTextReadsBackTheSameTransform() throws {
        var transform = ImageTransform(width: 512, height: 256, fit: .cover, gravity: .attention, format: .format(.webp))
        transform.quality = 75
        transform.devicePixelRatio = 1.5
        transform.background = RGBColor(red: 0x12, green: 0xab, blue: 0xff)
        transform.keepMetadata = true
        let text = transform.canonicalText
        #expect(text == "w=512,h=256,fit=cover,gravity=attention,dpr=1.5,bg=12abff,format=webp,q=75,metadata=keep")
        #expect(try ImageTransform(parsing: text) == transform)
    }

    @Test func aliasesSeparatorsAndOrderDoNotChangeTheCanonicalText() throws {
        let a = try ImageTransform(parsing: "format:webp;width:256&quality=80")
        let b = try ImageTransform(pairs: [("w", "256"), ("q", "80"), ("f", "webp"), ("url", "http://x/")], ignoring: ["url"])
        #expect(a == b)
        #expect(a.canonicalText == "w=256,format=webp,q=80")
        #expect(ImageTransform().canonicalText == "original")
        #expect(try ImageTransform(parsing: "original") == ImageTransform())
    }

    @Test(arguments: [
        "w=0", "w=100000", "h=-3", "q=0", "q=101", "format=bmp", "fit=stretch", "gravity=up", "dpr=0", "dpr=9",
        "bg=zzzzzz", "unknown=1", "w=12,w=13", "w=abc", "lossless=maybe", "w=8000,dpr=3", "nonsense",
        "frame=abc", "frame=-1", "frame=101%", "frame=1e3s", "frame=0.12345s", "frame=-2s", "frame=", "frame=1,frame=2",
    ])
    func badTransformsAreTypedErrors(_ text: String) {
        #expect(throws: ImagingError.invalidTransform) { try ImageTransform(parsing: text) }
    }

    @Test func aFrameIsPartOfTheCanonicalTextInEachOfItsThreeForms() throws {
        let number = try ImageTransform(parsing: "w=320,frame=30")
        #expect(number.frame == .number(30))
        #expect(number.canonicalText == "frame=30,w=320")
        let percent = try ImageTransform(pairs: [("frame", "12.5%"), ("format", "png")])
        #expect(percent.frame == .percent(12.5))
        #expect(percent.canonicalText == "frame=12.5%,format=png")
        let seconds = try ImageTransform(parsing: "frame:1.50s")
        #expect(seconds.canonicalText == "frame=1.5s")
        for transform in [number, percent, seconds] {
            #expect(try ImageTransform(parsing: transform.canonicalText) == transform)
        }
        // different frames are different transforms, and so different variant keys
        #expect(try ImageTransform(parsing: "frame=0") != ImageTransform(parsing: "frame=1"))
        #expect(try ImageTransform(parsing: "frame=0") != ImageTransform())
    }

    @Test(arguments: [("30", "30"), ("50%", "50%"), ("50.0%", "50%"), ("100%", "100%"), ("1.5s", "1.5s"), (" 2s ", "2s"), ("0.0001s", "0.0001s")])
    func frameSpecsReadBackTheirCanonicalText(_ text: String, _ canonical: String) throws {
        let spec = try #require(FrameSpec(text))
        #expect(spec.text == canonical)
        #expect(FrameSpec(spec.text) == spec)
    }

    @Test func backgroundColoursParseInBothLengths() {
        #expect(RGBColor(hex: "#fff") == RGBColor.white)
        #expect(RGBColor(hex: "0a0B0c")?.description == "0a0b0c")
        #expect(RGBColor(hex: "12345") == nil)
    }
}
