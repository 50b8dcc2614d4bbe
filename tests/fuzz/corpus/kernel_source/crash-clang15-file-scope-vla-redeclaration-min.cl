int n;
int a[n];
int a[n+1];
