/*
 * replay.c - run a libFuzzer harness over files and directories of
 * inputs without libFuzzer, with any compiler: make check's replay of
 * the corpora.  Prints how many inputs ran; exits 1 if there were none.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t runs;

static void
run_file(const char *path)
{
	FILE	*f = fopen(path, "rb");
	uint8_t	*buf;
	long	 len;

	if (f == NULL || fseek(f, 0, SEEK_END) == -1 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) == -1 ||
	    (buf = malloc((size_t)len + 1)) == NULL ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	runs++;
}

static void
run_path(const char *path)
{
	struct stat	 st;
	struct dirent	*e;
	DIR		*d;
	char		 sub[4096];

	if (stat(path, &st) == -1) {
		fprintf(stderr, "replay: %s: not found\n", path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	if ((d = opendir(path)) == NULL)
		exit(2);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		run_path(sub);
	}
	closedir(d);
}

int
main(int argc, char **argv)
{
	int	i;

	for (i = 1; i < argc; i++)
		run_path(argv[i]);
	printf("%zu inputs replayed\n", runs);
	return runs > 0 ? 0 : 1;
}
