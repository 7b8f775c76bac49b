import Testing
@testable import TernKit

