/// Syntax colours for a fenced block's lines in a few common languages: keywords, strings (and numbers) and
/// comments, one line at a time (a string or comment over several lines is not followed). A language it
/// does not know: no colours.
enum CodeColours {
    enum Kind: Sendable, Equatable {
        case plain, keyword, string, comment
    }

    struct Language: Sendable {
        var keywords: Set<String>
        /// What starts a comment running to the end of the line.
        var comments: [String]
    }

    static let cLike = ["//"]

    static let languages: [String: Language] = {
        let swift = Language(
            keywords: [
                "let", "var", "func", "if", "else", "guard", "return", "for", "in", "while", "switch", "case", "default", "struct", "class",
                "enum", "protocol", "extension", "import", "true", "false", "nil", "self", "try", "throw", "throws", "async", "await", "where",
                "public", "private", "static", "init", "break", "continue", "do", "catch", "defer", "some", "any",
            ], comments: cLike)
        let python = Language(
            keywords: [
                "def", "class", "if", "elif", "else", "for", "while", "in", "return", "import", "from", "as", "with", "try", "except",
                "finally", "raise", "pass", "break", "continue", "lambda", "yield", "None", "True", "False", "and", "or", "not", "is",
                "async", "await", "global",
            ], comments: ["#"])
        let js = Language(
            keywords: [
                "const", "let", "var", "function", "return", "if", "else", "for", "while", "of", "in", "new", "class", "extends", "import",
                "export", "from", "default", "async", "await", "try", "catch", "finally", "throw", "true", "false", "null", "undefined",
                "this", "typeof", "switch", "case", "break", "continue", "interface", "type",
            ], comments: cLike)
        let go = Language(
            keywords: [
                "func", "package", "import", "var", "const", "type", "struct", "interface", "map", "chan", "go", "defer", "return", "if",
                "else", "for", "range", "switch", "case", "default", "break", "continue", "select", "nil", "true", "false",
            ], comments: cLike)
        let rust = Language(
            keywords: [
                "fn", "let", "mut", "pub", "struct", "enum", "impl", "trait", "use", "mod", "match", "if", "else", "for", "in", "while",
                "loop", "return", "self", "Self", "true", "false", "async", "await", "move", "ref", "where", "const", "static",
            ], comments: cLike)
        let shell = Language(
            keywords: [
                "if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "case", "esac", "function", "return", "export",
                "local", "echo", "exit",
            ], comments: ["#"])
        let c = Language(
            keywords: [
                "int", "char", "void", "long", "short", "unsigned", "const", "static", "struct", "enum", "typedef", "return", "if", "else",
                "for", "while", "do", "switch", "case", "default", "break", "continue", "sizeof", "include", "define", "class", "public",
                "private", "new", "delete", "auto", "true", "false", "NULL", "nullptr",
            ], comments: cLike)
        return [
            "swift": swift, "python": python, "py": python, "javascript": js, "js": js, "typescript": js, "ts": js, "go": go,
            "rust": rust, "rs": rust, "sh": shell, "bash": shell, "shell": shell, "zsh": shell, "c": c, "cpp": c, "c++": c, "java": c,
        ]
    }()

    /// A line cut into pieces with what each is; nil for a language without colours.
    static func tokens(_ line: String, language: String) -> [(String, Kind)]? {
        guard let lang = languages[language.lowercased()] else { return nil }
        let chars = Array(line)
        var out: [(String, Kind)] = []
        func add(_ text: some Sequence<Character>, _ kind: Kind) {
            let s = String(text)
            guard !s.isEmpty else { return }
            if let last = out.last, last.1 == kind { out[out.count - 1].0 += s } else { out.append((s, kind)) }
        }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if lang.comments.contains(where: { chars[i...].starts(with: Array($0)) }) {
                add(chars[i...], .comment)
                break
            }
            if c == "\"" || c == "'" || c == "`" {
                var j = i + 1
                while j < chars.count, chars[j] != c { j += chars[j] == "\\" ? 2 : 1 }
                let end = min(j + 1, chars.count)
                add(chars[i..<end], .string)
                i = end
                continue
            }
            if c.isLetter || c == "_" || c.isNumber {
                var j = i
                while j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" { j += 1 }
                let word = String(chars[i..<j])
                add(word, c.isNumber ? .string : lang.keywords.contains(word) ? .keyword : .plain)
                i = j
                continue
            }
            add([c], .plain)
            i += 1
        }
        return out
    }
}
