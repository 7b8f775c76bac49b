import Testing

/// Expects `ok`: for a check whose expression mutates its subject (a `mutating` call cannot
/// stand inside `#expect`), as `expectTrue(machine.handle(.tick, now: 0).isEmpty)`.
func expectTrue(_ ok: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(ok, sourceLocation: sourceLocation)
}
