import TernServer
import TernKit
import TernTUI
import TernTerminal
print("tern")
