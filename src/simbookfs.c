/* simbookfs.c - placeholder until the passthrough lands. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("simbookfs %s\n", SIMBOOK_VERSION);
		return 0;
	}
	fprintf(stderr, "usage: simbookfs SRC MNT [-f] [-d] [-o opt,...]\n");
	return 2;
}
