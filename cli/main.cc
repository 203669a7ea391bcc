#include <cstdio>
#include "tierlab/Version.h"
int main() { std::printf("tierlab %s\n", tierlab::kVersion); return 0; }
