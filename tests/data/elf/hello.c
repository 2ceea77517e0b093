#include <math.h>
#include <stdio.h>
int main(int argc, char** argv) { printf("%g\n", sqrt((double)argc)); return 0; }
