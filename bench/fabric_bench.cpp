// placeholder until the benchmark lands in this change
int main() { return 0; }
