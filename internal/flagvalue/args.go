package flagvalue

import "flag"

// ParseArgs parses args with fs, letting flags come before or after the
// positional arguments ("get URL --raw" as "get --raw URL"): it returns
// the positional arguments in order. "--" ends the flags; what follows it
// is positional even when it starts with "-". An error is fs.Parse's
// (flag.ErrHelp for -h and --help).
func ParseArgs(fs *flag.FlagSet, args []string) (positional []string, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
