from stigmergy.cli.app import main

main()
