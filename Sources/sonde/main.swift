// sonde's entry point: everything else is the SondeCLI library.
import SondeCLI

await Sonde.runFromCommandLine()
