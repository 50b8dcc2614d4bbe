/* fake_preload.c: an empty shared object for `tutti-profile run` to preload in its test. */
int tutti_profile_fake_preload;
