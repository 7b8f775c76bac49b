import Testing

@testable import TernServer

@Suite("LinkPreviews.firstURL: the link a message's preview is made for")
struct LinkPreviewsTests {
    @Test("The first http(s) word with a host, stripped of the punctuation around it; none without \"://\"")
    func firstURL() {
        #expect(LinkPreviews.firstURL(in: "see https://example.com/a?b=1.") == "https://example.com/a?b=1")
        #expect(LinkPreviews.firstURL(in: "(HTTP://Example.com/x), then http://other.org") == "HTTP://Example.com/x")
        #expect(LinkPreviews.firstURL(in: "ftp://files.example.com and https://ok.example") == "https://ok.example")
        #expect(LinkPreviews.firstURL(in: "你好\u{3000}https://例子.example/路径") != nil, "an ideographic space separates words")
        #expect(LinkPreviews.firstURL(in: "no link here: example.com, http:/broken, https://") == nil)
        #expect(LinkPreviews.firstURL(in: "") == nil)
        #expect(LinkPreviews.firstURL(in: "://") == nil)
        #expect(LinkPreviews.hasSchemeSeparator("a://") && !LinkPreviews.hasSchemeSeparator(":/") && !LinkPreviews.hasSchemeSeparator("a:/ /"))
    }
}
